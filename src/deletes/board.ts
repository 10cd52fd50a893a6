import type { ObjectStore } from '../shared-store/object-store.js';
import type { DeletePart, DeleteRequest } from './types.js';

// With SVC_STORE, delete jobs are shared through the store, so every node runs its part on its
// own blocks and live data and any node answers for the whole job:
//
//   deletes/<id>/request.json        the request, written once by the node asked
//   deletes/<id>/parts/<node>.json   each node's part (status, blocks, events deleted)
//   deletes/<id>/cancel.json         present once a cancel was asked on any node

const PREFIX = 'deletes/';
const requestKey = (id: string) => `${PREFIX}${id}/request.json`;
const partKey = (id: string, node: string) => `${PREFIX}${id}/parts/${node}.json`;
const cancelKey = (id: string) => `${PREFIX}${id}/cancel.json`;

/** The delete jobs of a shared store. Every call may throw StoreUnavailable. */
export class DeleteBoard {
  constructor(private readonly store: ObjectStore) {}

  async putRequest(r: DeleteRequest): Promise<void> {
    await this.store.put(requestKey(r.id), Buffer.from(JSON.stringify(r)), { ifAbsent: true });
  }

  async request(id: string): Promise<DeleteRequest | undefined> {
    const o = await this.store.get(requestKey(id));
    return o && (JSON.parse(o.data.toString('utf8')) as DeleteRequest);
  }

  /** The ids of every job in the store (one list call). */
  async ids(): Promise<string[]> {
    const ids = new Set<string>();
    for (const o of await this.store.list(PREFIX)) {
      const m = /^deletes\/([^/]+)\/request\.json$/.exec(o.key);
      if (m) ids.add(m[1]);
    }
    return [...ids];
  }

  async putPart(p: DeletePart): Promise<void> {
    await this.store.put(partKey(p.id, p.node), Buffer.from(JSON.stringify(p)));
  }

  async parts(id: string): Promise<DeletePart[]> {
    const out: DeletePart[] = [];
    for (const o of await this.store.list(`${PREFIX}${id}/parts/`)) {
      const got = await this.store.get(o.key);
      if (got) out.push(JSON.parse(got.data.toString('utf8')) as DeletePart);
    }
    return out;
  }

  async cancel(id: string): Promise<void> {
    await this.store.put(cancelKey(id), Buffer.from('{}'));
  }

  async cancelled(id: string): Promise<boolean> {
    return (await this.store.head(cancelKey(id))) !== undefined;
  }
}
