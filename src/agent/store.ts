/** Where `ask` keeps transcripts, in the provider's wire dialect (not portable between styles). */
export interface ConversationStore {
  get(id: string): Promise<unknown[] | undefined>;
  save(id: string, messages: unknown[]): Promise<void>;
  delete?(id: string): Promise<void>;
}

/** A process-local store; copies on the way in and out so callers cannot mutate it by accident. */
export class InMemoryConversationStore implements ConversationStore {
  private readonly conversations = new Map<string, unknown[]>();

  async get(id: string): Promise<unknown[] | undefined> {
    const messages = this.conversations.get(id);
    return messages ? structuredClone(messages) : undefined;
  }

  async save(id: string, messages: unknown[]): Promise<void> {
    this.conversations.set(id, structuredClone(messages));
  }

  async delete(id: string): Promise<void> {
    this.conversations.delete(id);
  }
}
