// A transcript of a flow written by its test: calls and their answers as Markdown, for a reader (an auditor) to follow.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Runtime } from '../src/runtime.ts';
import { callDirect, errorOf, ok } from './helpers.ts';

type Row = Record<string, unknown>;

const FENCE = '```';
const fence = (language: string, body: string) => [`${FENCE}${language}`, body, FENCE, ''];

/** The Markdown of one flow, built step by step; `write` saves it under test-results/. */
export class Transcript {
  private readonly lines: string[];
  private step = 0;

  constructor(title: string, summary?: string) {
    this.lines = [`# ${title}`, ''];
    if (summary) this.lines.push(summary, '');
  }

  /** A numbered step's heading and, if given, a line saying what it shows. */
  heading(title: string, explanation?: string): this {
    this.step++;
    this.lines.push(`## ${this.step}. ${title}`, '');
    if (explanation) this.lines.push(explanation, '');
    return this;
  }

  /** A call and its answer, as JSON. */
  call(
    title: string,
    request: { tool: string; arguments: unknown },
    answer: unknown,
    explanation?: string,
  ): this {
    this.heading(title, explanation);
    this.lines.push(
      `Call \`${request.tool}\`:`,
      '',
      ...fence('json', JSON.stringify(request.arguments, null, 2)),
      'Answer:',
      '',
      ...fence('json', JSON.stringify(answer, null, 2)),
    );
    return this;
  }

  /** What a page showed a person, as text on one line (cut at `limit` characters). */
  page(title: string, text: string, limit = 1200): this {
    this.heading(title);
    this.lines.push(...fence('text', text.replace(/\s+/g, ' ').trim().slice(0, limit)));
    return this;
  }

  /** A paragraph of prose. */
  say(text: string): this {
    this.lines.push(text, '');
    return this;
  }

  /** A Markdown table of `rows` with these columns. */
  table(columns: string[], rows: Row[]): this {
    const cell = (value: unknown) =>
      (value === null || value === undefined ? '—' : String(value)).replace(/\|/g, '\\|').replace(/\n/g, ' ');
    this.lines.push(
      `| ${columns.join(' | ')} |`,
      `|${columns.map(() => '---').join('|')}|`,
      ...rows.map((row) => `| ${columns.map((column) => cell(row[column])).join(' | ')} |`),
      '',
    );
    return this;
  }

  text(): string {
    return this.lines.join('\n');
  }

  /** Saves the transcript at `path` (relative to the project, e.g. test-results/transcripts/approvals.md). */
  write(path: string): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, this.text());
  }
}

/** Direct calls as `token` that land in `transcript`, each as the next step with its answer. */
export function transcribedCalls(transcript: Transcript, runtime: Runtime, token: string) {
  return {
    /** Runs the tool; the test fails unless it answers 200. */
    async ok<T = Row>(title: string, tool: string, args: Row, explanation?: string): Promise<T> {
      const answer = await ok<T>(runtime, token, tool, args);
      transcript.call(title, { tool, arguments: args }, answer, explanation);
      return answer;
    },
    /** Runs a call that must be refused; answers its HTTP status and error. */
    async refused(title: string, tool: string, args: Row, explanation?: string) {
      const result = await callDirect(runtime, token, tool, args);
      transcript.call(
        title,
        { tool, arguments: args },
        { http_status: result.status, ...result.body },
        explanation,
      );
      return { status: result.status, error: errorOf(result) };
    },
  };
}
