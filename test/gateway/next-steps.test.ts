import { describe, expect, it } from 'vitest';
import { nextStepsLine } from '../../src/gateway/next-steps.js';

describe('nextStepsLine', () => {
  it('names the dashboard, where the token is, and the send command for the default data dir', () => {
    expect(nextStepsLine({ url: 'http://127.0.0.1:7420', tokenFile: 'data/token', dataDirFlag: undefined })).toBe(
      'Vigil is listening. Dashboard: http://127.0.0.1:7420/ (its token is in data/token). Talk to it: vigil send "hello". A read-only token: vigil tokens create --scope read',
    );
  });

  it('adds --data-dir (quoted for a shell when needed) for another data dir, and names VIGIL_TOKEN when that is the token', () => {
    const text = nextStepsLine({
      url: 'http://127.0.0.1:41000',
      tokenFile: undefined,
      dataDirFlag: "/tmp/my agent's dir",
    });
    expect(text).toContain("its token is VIGIL_TOKEN's value");
    expect(text).toContain(`vigil send "hello" --data-dir '/tmp/my agent'\\''s dir'`);
  });
});
