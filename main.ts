/**
 * The cdktf app: the stacks of every environments/*.yaml, or only those named in ENVIRONMENT
 * (comma-separated). Invalid environment files stop here, before anything is written to cdktf.out.
 */
import { EnvironmentsApp } from './lib/app/environments-app';

try {
  new EnvironmentsApp().synth();
} catch (e) {
  // Configuration errors are written for people: the message only, no stack trace.
  process.stderr.write(`${(e as Error).message}\n`);
  process.exit(1);
}
