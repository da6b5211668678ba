/**
 * Detects a container runtime for testcontainers-based suites. Resolves false (with the reason)
 * quickly when there is none, so suites can `describe.skipIf(!runtime.available)` and print why.
 */
export async function detectContainerRuntime(): Promise<{ available: boolean; reason: string }> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await Promise.race([
      getContainerRuntimeClient(),
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new Error('timed out after 5 s looking for a container runtime')),
          5_000,
        ).unref(),
      ),
    ]);
    return { available: true, reason: `container runtime: ${client.info.containerRuntime.host}` };
  } catch (err) {
    return { available: false, reason: (err as Error)?.message ?? String(err) };
  }
}
