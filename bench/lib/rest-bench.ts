/** REST figures; filled in once the REST layer lands. */
export async function runRestBench(_url: string, _runs: number, _quick: boolean): Promise<Record<string, unknown>> {
  return {};
}
