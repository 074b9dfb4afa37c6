#!/usr/bin/env node
// A solc command line over solc-js (the npm `solc` package), so that forge compiles offline with
// the compiler the service has (no svm download): `--version` and `--standard-json` on stdin.
const solc = require('solc');
const args = process.argv.slice(2);
if (args.includes('--version')) {
  const v = solc.version().replace('.Emscripten.clang', '.Linux.g++');
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${v}\n`);
  process.exit(0);
}
if (args.includes('--standard-json')) {
  let input = '';
  process.stdin.on('data', (c) => (input += c));
  process.stdin.on('end', () => {
    const fs = require('fs');
    const path = require('path');
    const out = solc.compile(input, {
      import: (p) => {
        try {
          return { contents: fs.readFileSync(path.resolve(p), 'utf8') };
        } catch (e) {
          return { error: String(e) };
        }
      },
    });
    process.stdout.write(out);
  });
} else {
  process.stderr.write(`unsupported arguments: ${args.join(' ')}\n`);
  process.exit(1);
}
