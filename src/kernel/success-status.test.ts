import { isAccepted, successStatus } from './success-status';

describe('successStatus', () => {
  it('answers 201 to a POST, 200 to the other methods, 202 to anything accepted for later', () => {
    expect(successStatus('POST')).toBe(201);
    expect(successStatus('GET')).toBe(200);
    expect(successStatus('PATCH')).toBe(200);
    expect(successStatus('DELETE')).toBe(200);
    expect(successStatus('POST', false)).toBe(201);
    expect(successStatus('POST', true)).toBe(202);
  });

  it('takes an answer whose record is still queued as accepted for later, and nothing else', () => {
    expect(isAccepted({ status: 'queued' })).toBe(true);
    for (const status of ['pending', 'success', 'reverted', 'failed', 'cancelled', undefined]) {
      expect(isAccepted({ status })).toBe(false);
    }
  });
});
