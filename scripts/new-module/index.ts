// npm run new:module: see cli.ts.
import { main } from './cli';

void main('module', process.argv.slice(2)).then((code) => (process.exitCode = code));
