// The operator CLI run in process, as the tests call it: its exit code and the lines it wrote to stdout and stderr.
import { main } from '../src/cli/main.ts';

export async function runCli(
  env: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    argv,
    env,
    (line) => out.push(line),
    (line) => err.push(line),
  );
  return { code, out, err };
}
