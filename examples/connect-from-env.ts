/** Shared by the examples: where the daemon is (VIGIL_URL, or VIGIL_HOST/VIGIL_PORT) and its token (VIGIL_TOKEN, or DATA_DIR/token). */
import { readTokenFile } from 'vigil';

/** The daemon's URL and token, as the CLI finds them. */
export async function daemonFromEnv(): Promise<{ url: string; token: string | undefined }> {
  const env = process.env;
  const url = env.VIGIL_URL ?? `http://${env.VIGIL_HOST ?? '127.0.0.1'}:${env.VIGIL_PORT ?? '7420'}`;
  const token = env.VIGIL_TOKEN ?? (await readTokenFile(env.VIGIL_DATA_DIR ?? './data'));
  return { url, token };
}
