/** A start-up problem the operator must fix (bad catalog, bad keys file, a store of another format): one line per problem. */
export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigurationError';
  }
}
