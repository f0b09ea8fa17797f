import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Runs the NAT file last: it reads every ATIF and ATOF file the other interop runs wrote. */
export class NatLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isNat = (f: TestSpecification) => f.moduleId.endsWith("/nat.test.ts");
    return [...sorted.filter((f) => !isNat(f)), ...sorted.filter(isNat)];
  }
}
