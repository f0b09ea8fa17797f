/** Hands out `<prefix-N>` tokens in order of first appearance. */
export class TokenTable {
  private readonly tokens = new Map<string, string>();

  constructor(private readonly prefix: string) {}

  get(value: string): string {
    let token = this.tokens.get(value);
    if (token === undefined) {
      token = `<${this.prefix}-${this.tokens.size + 1}>`;
      this.tokens.set(value, token);
    }
    return token;
  }
}

export const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
