// The probes of a hostile client and a crashing host, with small counts (large ones: npm run fuzz -- --count 10000,
// npm run fuzz:crash): no 5xx, no internal error, no code outside the closed set, no answer that fails its own
// outputSchema, no other organization's ids; after kill -9 under write load, an intact file with every
// acknowledged write and exactly one call-log row per write that landed.
import { describe, expect, it } from 'vitest';
import { runCrashTest } from '../../scripts/fuzz-crash-engine.ts';
import { runFileCrashTest } from '../../scripts/fuzz-crash-files.ts';
import { runFuzz } from '../../scripts/fuzz-engine.ts';

describe('fuzzing every tool on both surfaces', () => {
  it('finds no 5xx, internal error, unknown code, output-schema failure or leak in 600 calls', async () => {
    const report = await runFuzz({ seed: 20261123, count: 600 });
    expect(report.calls).toBe(600);
    expect(report.bySurface.direct).toBeGreaterThan(200);
    expect(report.bySurface.mcp).toBeGreaterThan(200);
    expect(report.succeeded).toBeGreaterThan(50);
    expect(report.failures).toEqual([]);
    expect({
      serverErrors: report.serverErrors,
      internal: report.internal,
      unknownCodes: report.unknownCodes,
      outputSchemaFailures: report.outputSchemaFailures,
      leaks: report.leaks,
    }).toEqual({ serverErrors: 0, internal: 0, unknownCodes: 0, outputSchemaFailures: 0, leaks: 0 });
  }, 240_000);
});

describe('kill -9 of the Node host under write load', () => {
  it('keeps the file intact, every acknowledged write, and one call-log row per write', async () => {
    const report = await runCrashTest({ rounds: 2, writesPerRound: 60, concurrency: 8 });
    expect(report.rounds.map((round) => round.acknowledged >= 60)).toEqual([true, true]);
    expect(report.rounds.map((round) => round.integrity)).toEqual(['ok', 'ok']);
    expect({
      lostWrites: report.lostWrites,
      missingLogRows: report.missingLogRows,
      extraLogRows: report.extraLogRows,
      restarted: report.restarted,
    }).toEqual({ lostWrites: 0, missingLogRows: 0, extraLogRows: 0, restarted: true });
  }, 300_000);
});

describe('kill -9 of the Node host during uploads', () => {
  it('leaves, after upkeep, no row without a blob, no blob without a row, and every acknowledged upload whole', async () => {
    const report = await runFileCrashTest({ uploads: 24, concurrency: 6 });
    expect(report.acknowledged).toBeGreaterThanOrEqual(24);
    expect({
      rowsWithoutBlob: report.rowsWithoutBlob,
      blobsWithoutRow: report.blobsWithoutRow,
      damagedUploads: report.damagedUploads,
    }).toEqual({ rowsWithoutBlob: 0, blobsWithoutRow: 0, damagedUploads: 0 });
  }, 300_000);
});
