/**
 * Prometheus' own linter on Vigil's `/metrics`: `promtool check metrics` (from Debian's `prometheus` package, which
 * `.ci/run` installs) must pass on a live scrape, with beats, a think, RPC calls and a checkpoint counted, so every
 * family has its samples. Base units (seconds, bytes, ratios), `_total` on counters and only on counters.
 */
import { spawnSync } from 'node:child_process';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayHarness, TEST_TOKEN, type GatewayHarness } from './gateway.fixture.js';

let h: GatewayHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function scrapeAfterActivity(): Promise<string> {
  h = await startGatewayHarness();
  const harness = h;
  await harness.advance(3000);
  const client = await harness.connect();
  await harness.until(client.request('agent.send', { text: 'hello' }));
  await harness.advance(3000);
  await harness.until(client.request('checkpoint.create'));
  await client.close();
  const response = await fetch(`${harness.gateway.url}/metrics`, {
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('GET /metrics follows the Prometheus conventions', () => {
  it('passes `promtool check metrics`', async () => {
    const text = await scrapeAfterActivity();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    // Not installed is a failure, not a skip: `.ci/run` installs promtool (see CONTRIBUTING.md).
    expect(check.error, 'promtool must be on PATH (Debian: the prometheus package)').toBeUndefined();
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });

  it('names times in seconds, ends counters and only counters in _total, and abbreviates no unit', async () => {
    const families = parsePrometheusTextFormat(await scrapeAfterActivity());
    expect(families.length).toBeGreaterThan(40);
    for (const family of families) {
      expect(family.name.endsWith('_total'), `${family.name} (${family.type})`).toBe(family.type === 'COUNTER');
      expect(family.name, 'abbreviated unit').not.toMatch(/_(ms|us|ns|kb|mb|gb|pct|percent)(_|$)/);
    }
    const histograms = families.filter((family) => family.type === 'HISTOGRAM').map((family) => family.name);
    expect(histograms).toContain('vigil_beat_duration_seconds');
    for (const name of histograms.filter((n) => n.startsWith('vigil_') && n.includes('duration')))
      expect(name).toMatch(/_seconds$/);
  });
});
