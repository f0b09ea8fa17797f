import type { ScopeStack } from "../events/scope-stack.js";
import { RelaytraceError } from "./errors.js";

export interface RegistryEntry<F> {
  readonly name: string;
  readonly priority: number;
  readonly callback: F;
  /** Owning scope uuid for scope-local entries. */
  readonly scopeUuid?: string;
  readonly breakChain?: boolean;
  /** Registration order, for registries ordered by insertion (subscribers). */
  readonly seq: number;
}

export type RegistryOrder = "priority" | "insertion";

/**
 * Named registrations of one family. Lower priority runs first (outermost), ties by name; on
 * equal priority global entries run before scope-local ones, and outer scopes before inner ones.
 */
export class Registry<F> {
  private globals: RegistryEntry<F>[] = [];
  private locals: RegistryEntry<F>[] = [];
  private seq = 0;
  private changes = 0;

  constructor(
    readonly family: string,
    private readonly order: RegistryOrder = "priority",
  ) {}

  get size(): number {
    return this.globals.length + this.locals.length;
  }

  /** Counts every change of the registrations: equal versions see the same entries from every stack without scope-local ones. */
  get version(): number {
    return this.changes;
  }

  /** Whether any scope-local entry exists (then what is visible depends on the stack). */
  get hasScopeLocal(): boolean {
    return this.locals.length > 0;
  }

  add(name: string, priority: number, callback: F, options: { scopeUuid?: string; breakChain?: boolean } = {}): () => boolean {
    if (typeof name !== "string" || name.length === 0) {
      throw new RelaytraceError("invalid_argument", `${this.family}: a registration needs a non-empty name`);
    }
    if (!Number.isFinite(priority)) {
      throw new RelaytraceError("invalid_argument", `${this.family} "${name}": priority must be a finite number`);
    }
    if (typeof callback !== "function") {
      throw new RelaytraceError("invalid_argument", `${this.family} "${name}": callback must be a function`);
    }
    // Global names are unique among globals; scope-local names only within their scope, so two
    // concurrent requests may each register their own "redaction" on their own scope.
    const scopeUuid = options.scopeUuid;
    if (scopeUuid === undefined) {
      if (this.globals.some((e) => e.name === name))
        throw new RelaytraceError("already_exists", `${this.family} "${name}" is already registered`);
    } else if (this.locals.some((e) => e.scopeUuid === scopeUuid && e.name === name)) {
      throw new RelaytraceError("already_exists", `${this.family} "${name}" is already registered on this scope`);
    }
    const entry: RegistryEntry<F> = {
      name,
      priority,
      callback,
      seq: this.seq++,
      ...(options.scopeUuid !== undefined ? { scopeUuid: options.scopeUuid } : {}),
      ...(options.breakChain ? { breakChain: true } : {}),
    };
    // Copy-on-write: snapshots taken at emit time keep the arrays they saw.
    if (entry.scopeUuid === undefined) this.globals = this.sorted([...this.globals, entry]);
    else this.locals = this.sorted([...this.locals, entry]);
    this.changes++;
    return () => this.remove(entry);
  }

  removeByName(name: string): boolean {
    const entry = this.globals.find((e) => e.name === name) ?? this.locals.find((e) => e.name === name);
    return entry ? this.remove(entry) : false;
  }

  /** Drops every entry owned by a scope that has popped. */
  removeScope(scopeUuid: string): void {
    if (this.locals.length === 0) return;
    const kept = this.locals.filter((e) => e.scopeUuid !== scopeUuid);
    if (kept.length !== this.locals.length) {
      this.locals = kept;
      this.changes++;
    }
  }

  /** The entries visible from `stack`, in run order. Returns a shared array: do not mutate. */
  effective(stack: ScopeStack): readonly RegistryEntry<F>[] {
    if (this.locals.length === 0) return this.globals;
    const visible: { entry: RegistryEntry<F>; depth: number }[] = [];
    for (const entry of this.locals) {
      const depth = stack.indexOf(entry.scopeUuid!);
      if (depth >= 0) visible.push({ entry, depth });
    }
    if (visible.length === 0) return this.globals;
    visible.sort((a, b) => a.depth - b.depth); // stable: keeps (priority, name) inside one scope
    const merged = [...this.globals, ...visible.map((v) => v.entry)];
    if (this.order === "priority") merged.sort((a, b) => a.priority - b.priority); // stable by priority alone
    return merged;
  }

  private remove(entry: RegistryEntry<F>): boolean {
    const list = entry.scopeUuid === undefined ? this.globals : this.locals;
    const index = list.indexOf(entry);
    if (index < 0) return false;
    const next = list.slice(0, index).concat(list.slice(index + 1));
    if (entry.scopeUuid === undefined) this.globals = next;
    else this.locals = next;
    this.changes++;
    return true;
  }

  private sorted(list: RegistryEntry<F>[]): RegistryEntry<F>[] {
    if (this.order === "insertion") return list.sort((a, b) => a.seq - b.seq);
    return list.sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
