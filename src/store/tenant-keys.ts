import { hkdfSync } from 'node:crypto';

/**
 * Keys derived per tenant from the master key with HKDF-SHA256 (info = tenant), one family per label
 * (the salt): keys of two families never coincide, and one tenant's key never opens another's data.
 */
export class TenantKeys {
  private readonly keys = new Map<string, Buffer>();

  constructor(
    private readonly masterKey: Buffer,
    private readonly label: string,
  ) {}

  get(tenant: string): Buffer {
    let key = this.keys.get(tenant);
    if (!key) {
      key = Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.from(this.label), Buffer.from(tenant, 'utf8'), 32));
      this.keys.set(tenant, key);
    }
    return key;
  }
}
