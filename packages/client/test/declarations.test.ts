// The published declarations must stand alone: a front-end installs @clinic/client without the
// server's source, so dist/index.d.ts may import only the client's own dependencies.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const declarationFile = join(packageDir, "dist", "index.d.ts");

describe("dist/index.d.ts", () => {
  it("imports nothing from @clinic/ packages, only @trpc/*", async () => {
    const text = await readFile(declarationFile, "utf8");
    expect(text).not.toContain("@clinic/");
    const specifiers = [...text.matchAll(/(?:from\s+|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const specifier of specifiers) expect(specifier).toMatch(/^@trpc\/(client|server)$/);
  });

  it("type-checks on its own, without skipLibCheck, in a consumer's program", () => {
    // A consumer file next to the declarations; strict, and library checking on, so an unresolved
    // import or a dangling type in the bundle fails here instead of degrading to `any`.
    const consumer = join(packageDir, "dist", "__consumer__.ts");
    const source = `
      import { createClient, errorCodeOf, type RouterOutputs } from "./index.js";
      const api = createClient({ url: "http://127.0.0.1:1", token: () => "t" });
      export async function firstSlot(clinic_id: string, service_id: string): Promise<Date | undefined> {
        const availability: RouterOutputs["availability"]["get"] = await api.availability.get.query({ clinic_id, service_id });
        return availability.slots[0]?.start;
      }
      export const code: "SLOT_UNAVAILABLE" | undefined = errorCodeOf(new Error()) === "SLOT_UNAVAILABLE" ? "SLOT_UNAVAILABLE" : undefined;
    `;
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // esnext.disposable: @trpc/*'s own typings use Disposable (as a front-end with lib "ESNext" has).
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.esnext.disposable.d.ts"],
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const readFileBase = host.readFile.bind(host);
    const fileExistsBase = host.fileExists.bind(host);
    const getSourceFileBase = host.getSourceFile.bind(host);
    host.fileExists = (name) => name === consumer || fileExistsBase(name);
    host.readFile = (name) => (name === consumer ? source : readFileBase(name));
    host.getSourceFile = (name, languageVersion) =>
      name === consumer ? ts.createSourceFile(name, source, languageVersion) : getSourceFileBase(name, languageVersion);
    const program = ts.createProgram([consumer], options, host);
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    expect(diagnostics).toEqual([]);
    const files = program.getSourceFiles().map((f) => f.fileName);
    expect(files.some((f) => f.includes("/packages/api/") || f.includes("/packages/db/"))).toBe(false);
  });
});
