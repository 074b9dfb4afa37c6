import { describeAnswer, describeConnectionError, QUOTED_ANSWER_CHARS } from './webhook-sender';

describe('describeAnswer', () => {
  it('quotes the first characters of the answer after its status', () => {
    expect(describeAnswer(500, Buffer.from('database is down'))).toBe('status 500: database is down');
    expect(describeAnswer(404, Buffer.alloc(0))).toBe('status 404');
    expect(describeAnswer(503, Buffer.from(' \r\n\t '))).toBe('status 503');
  });

  it('removes control and invisible format characters, so an answer cannot forge log lines or hide text', () => {
    const answer = 'a\u0000b\r\nLevel: fatal\u001b[2Jc\u007f\u0085d\u200be\u202ef\u2028g';
    expect(describeAnswer(500, Buffer.from(answer))).toBe('status 500: a b Level: fatal [2Jc d e f g');
  });

  it('cuts at 200 characters (not bytes), never inside a character', () => {
    const quoted = describeAnswer(500, Buffer.from('ж'.repeat(500)));
    expect(quoted).toBe(`status 500: ${'ж'.repeat(QUOTED_ANSWER_CHARS)}`);
    // A multi-byte character cut by the read limit leaves no replacement character behind.
    const cut = Buffer.from('ok€').subarray(0, 4);
    expect(describeAnswer(500, cut)).toBe('status 500: ok');
    const emoji = describeAnswer(500, Buffer.from('😀'.repeat(300)));
    expect([...emoji.slice('status 500: '.length)]).toHaveLength(QUOTED_ANSWER_CHARS);
  });
});

describe('describeConnectionError', () => {
  it.each([
    ['ECONNREFUSED', 'connection refused'],
    ['ECONNRESET', 'connection reset by the receiver'],
    ['EHOSTUNREACH', 'host unreachable'],
    ['ENOTFOUND', 'host does not resolve'],
    ['EPROTO', 'connection failed (EPROTO)'],
    [undefined, 'connection failed'],
    ['weird code\nwith a line', 'connection failed'],
  ])('%s → %s', (code, text) => {
    expect(describeConnectionError(code)).toBe(text);
  });
});
