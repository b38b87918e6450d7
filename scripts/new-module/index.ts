// npm run new:module: see cli.ts.
import { main } from './cli';

process.exitCode = main('module', process.argv.slice(2));
