// The browser project's global setup: finds the Chromium the browser tests drive, once, before any test file runs.
// CHROMIUM_PATH wins (e.g. Debian's /usr/bin/chromium); otherwise the build published on npm as @sparticuz/chromium,
// a devDependency that `npm install` brings on any machine (no download at install or at run time), unpacked into
// the system's temp folder on first use. Unpacked here, once, so parallel test files never race to write it.
import Chromium from '@sparticuz/chromium';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    chromiumPath: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const path = process.env.CHROMIUM_PATH || (await Chromium.executablePath());
  project.provide('chromiumPath', path);
}
