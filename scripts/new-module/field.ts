// npm run new:field: see cli.ts.
import { main } from './cli';

void main('field', process.argv.slice(2)).then((code) => (process.exitCode = code));
