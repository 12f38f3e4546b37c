// Manage links: a patient's own link to one appointment, the only credential its routes need (docs/manage-links.md).
export * from "./token.ts";
export * from "./manage.ts";
