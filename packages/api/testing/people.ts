import { type Db, users } from "@clinic/db";
import { type AuthUser, mintToken } from "../src/modules/identity/index.ts";

/** The HS256 secret every test app verifies with and every test token is signed with. */
export const testSecret = "test-secret-0123456789-0123456789-abcdef";

let counter = 0;
/** A short string no other call of this process returns: for names and e-mails. */
export const unique = () =>
  `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 7)}`;

/** A test identity: the caller a procedure sees, and a token that authenticates as it over HTTP. */
export interface TestUser extends AuthUser {
  token: string;
}

async function identity(id: string, email: string, admin: boolean): Promise<TestUser> {
  const token = await mintToken(testSecret, { sub: id, email, roles: admin ? ["ADMIN"] : undefined });
  return { id, email, phoneE164: null, isAdmin: admin, token };
}

/** A fresh identity with a token only: its user row is provisioned by its first request. */
export function newIdentity(options: { admin?: boolean } = {}): Promise<TestUser> {
  return identity(crypto.randomUUID(), `u-${unique()}@test.example`, options.admin ?? false);
}

/** A fresh identity whose user row exists already (for procedure tests and memberships). */
export async function createUser(db: Db, options: { admin?: boolean; email?: string } = {}): Promise<TestUser> {
  const user = await identity(
    crypto.randomUUID(),
    options.email ?? `u-${unique()}@test.example`,
    options.admin ?? false,
  );
  await db.insert(users).values({ id: user.id, email: user.email });
  return user;
}
