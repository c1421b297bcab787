/** The read ACL of records that carry `readers` (documents): who in a scope may see them. */

/** Whether a principal may see a record with this read ACL (null: everyone in scope). */
export function canRead(readers: readonly string[] | null, principal: string): boolean {
  return readers === null || readers.includes(principal);
}
