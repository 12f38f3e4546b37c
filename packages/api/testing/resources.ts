import { type Db, resources } from "@clinic/db";

/** A resource (room or equipment) of the clinic, inserted directly; returns its id. */
export async function addResource(
  db: Db,
  clinicId: string,
  options: { name?: string; kind?: string; isActive?: boolean; deleted?: boolean } = {},
): Promise<string> {
  const [row] = await db
    .insert(resources)
    .values({
      clinicId,
      name: options.name ?? "Room 1",
      kind: options.kind ?? "treatment_room",
      isActive: options.isActive ?? true,
      deletedAt: options.deleted ? new Date() : null,
    })
    .returning({ id: resources.id });
  if (!row) throw new Error("no resource");
  return row.id;
}
