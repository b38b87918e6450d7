// npm run new:field: see cli.ts.
import { main } from './cli';

process.exitCode = main('field', process.argv.slice(2));
