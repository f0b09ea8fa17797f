// Type-level reading of a literal JSON Schema, so `defineTool` can type `execute`'s arguments.

type Next<D extends unknown[]> = [...D, 0];
// Deep enough for real tool schemas, shallow enough to keep the checker fast.
type TooDeep<D extends unknown[]> = D["length"] extends 10 ? true : false;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type ObjectOf<S, D extends unknown[]> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K], Next<D>> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K], Next<D>>;
      }
    >
  : Record<string, unknown>;

type OfType<T, S, D extends unknown[]> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? S extends { readonly items: infer I }
            ? FromJsonSchema<I, Next<D>>[]
            : unknown[]
          : T extends "object"
            ? ObjectOf<S, D>
            : unknown;

/**
 * The TypeScript type a literal JSON Schema describes: `type` (one or a list), `properties` with
 * `required`, `items`, `enum`, `const` and `anyOf`/`oneOf`. Anything it cannot read is `unknown`.
 */
export type FromJsonSchema<S, D extends unknown[] = []> =
  TooDeep<D> extends true
    ? unknown
    : S extends { readonly const: infer C }
      ? C
      : S extends { readonly enum: readonly (infer E)[] }
        ? E
        : S extends { readonly anyOf: readonly (infer A)[] }
          ? FromJsonSchema<A, Next<D>>
          : S extends { readonly oneOf: readonly (infer A)[] }
            ? FromJsonSchema<A, Next<D>>
            : S extends { readonly type: readonly (infer T)[] }
              ? OfType<T, S, D>
              : S extends { readonly type: infer T }
                ? OfType<T, S, D>
                : S extends { readonly properties: unknown }
                  ? ObjectOf<S, D>
                  : unknown;
