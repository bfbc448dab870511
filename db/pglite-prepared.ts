import { parse, protocol, type PGlite, type QueryOptions, type Results, type Transaction } from "@electric-sql/pglite";

/**
 * PGlite as drizzle should see it: every query with parameters runs as a named prepared statement, as postgres.js
 * runs them on a server (db/client.ts, `preparing`). PGlite's own query() sends an unnamed Parse each time, so
 * Postgres inside it parses, analyses and plans the statement at every run: the lead turn's 62 KB took 86 ms a
 * press there (48 ms of it planning), against 6 ms prepared, once Postgres keeps its generic plan after the first
 * five runs (docs/decisions/084). The messages are the ones query() sends (PGlite's BasePGlite#runQuery), with the
 * statement named: Parse and Describe once; then Bind, Describe of the portal, Execute and Sync at each run.
 *
 * `shouldPrepare` is the server's rule (parameters, and not too many); PGlite runs one query at a time, so the
 * statements live in its one session, at most MAX_STATEMENTS of them, the least recently used closed first.
 */
const MAX_STATEMENTS = 200;

interface Statement {
  name: string;
  /** Each parameter's type, as Postgres inferred it: the serializer its value goes through. */
  paramTypes: number[];
}

type Query = <T>(text: string, params?: unknown[], options?: QueryOptions) => Promise<Results<T>>;

/** The private-by-convention half of PGlite's API that its own query() uses; public JavaScript methods. */
interface PGliteInternals {
  _checkReady(): Promise<void>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

export function preparePglite(client: PGlite, shouldPrepare: (params: unknown[]) => boolean): void {
  const internals = client as unknown as PGliteInternals;
  const statements = new Map<string, Statement>();
  let counter = 0;
  const send = (message: Uint8Array, options?: QueryOptions) => client.execProtocolStream(message, { onNotice: options?.onNotice, syncToFs: false });

  /** Under PGlite's query lock: the statement's name, parsed and described on its first run. */
  async function statementFor(text: string, options: QueryOptions | undefined): Promise<Statement> {
    const known = statements.get(text);
    if (known) {
      // A Map iterates in insertion order: re-inserting keeps the least recently used first.
      statements.delete(text);
      statements.set(text, known);
      return known;
    }
    const name = `lead_desk_${++counter}`;
    let paramTypes: number[] = [];
    try {
      await send(protocol.serialize.parse({ name, text }), options);
      paramTypes = parse.parseDescribeStatementResults(await send(protocol.serialize.describe({ type: "S", name }), options));
    } finally {
      await send(protocol.serialize.sync());
    }
    const statement = { name, paramTypes };
    statements.set(text, statement);
    if (statements.size > MAX_STATEMENTS) {
      const [oldestText, oldest] = statements.entries().next().value as [string, Statement];
      statements.delete(oldestText);
      await send(protocol.serialize.close({ type: "S", name: oldest.name }));
      await send(protocol.serialize.sync());
    }
    return statement;
  }

  /** One run of a prepared statement, under PGlite's query lock; its results parsed as query() parses them. */
  async function runPrepared<T>(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    return internals._runExclusiveQuery(async () => {
      const messages = [];
      try {
        const { name, paramTypes } = await statementFor(text, options);
        const values = params.map((value, index) => {
          if (value === null || value === undefined) return null;
          const type = paramTypes[index];
          const serializer = options?.serializers?.[type] ?? client.serializers[type];
          return serializer ? serializer(value) : String(value);
        });
        messages.push(
          ...(await send(protocol.serialize.bind({ statement: name, values }), options)),
          ...(await send(protocol.serialize.describe({ type: "P" }), options)),
          ...(await send(protocol.serialize.execute({}), options)),
        );
      } catch (error) {
        // As query() does: the error names the query that failed.
        throw Object.assign(error as object, { query: text, params, queryOptions: options });
      } finally {
        messages.push(...(await send(protocol.serialize.sync(), options)));
      }
      return parse.parseResults(messages, client.parsers, options)[0] as Results<T>;
    });
  }

  const eligible = (params: unknown[] | undefined, options: QueryOptions | undefined): params is unknown[] =>
    params !== undefined && shouldPrepare(params) && !options?.blob && !options?.paramTypes;

  const query = client.query.bind(client) as Query;
  const prepared: Query = async (text, params, options) => {
    if (!eligible(params, options)) return query(text, params, options);
    await internals._checkReady();
    const results = await internals._runExclusiveTransaction(() => runPrepared(text, params, options));
    await client.syncToFs();
    return results as never;
  };
  client.query = prepared as PGlite["query"];

  // A transaction's queries hold its lock already and are written to disk at its COMMIT, as PGlite's own are.
  const transaction = client.transaction.bind(client);
  client.transaction = (<T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      const txQuery = tx.query.bind(tx) as Query;
      const wrapped: Transaction = Object.create(tx, {
        query: {
          value: ((text, params, options) => {
            if (tx.closed) throw new Error("Transaction is closed");
            return eligible(params, options) ? runPrepared(text, params, options) : txQuery(text, params, options);
          }) as Query,
        },
      });
      return callback(wrapped);
    })) as PGlite["transaction"];
}
