export type MediaModality = 'image' | 'audio';

/**
 * Accepted content types (DECISIONS.md) and the container formats their magic bytes may show, as
 * `file-type` names them by extension. MP4 audio may be sniffed as `m4a` or plain `mp4`; WebM and Ogg
 * audio share containers with video, so the container is what is checked.
 */
const ACCEPTED = new Map<string, { modality: MediaModality; sniffed: readonly string[] }>(Object.entries({
  'image/jpeg': { modality: 'image', sniffed: ['jpg'] },
  'image/png': { modality: 'image', sniffed: ['png'] },
  'image/webp': { modality: 'image', sniffed: ['webp'] },
  'image/gif': { modality: 'image', sniffed: ['gif'] },
  'audio/mpeg': { modality: 'audio', sniffed: ['mp3'] },
  'audio/mp4': { modality: 'audio', sniffed: ['m4a', 'mp4'] },
  'audio/x-m4a': { modality: 'audio', sniffed: ['m4a', 'mp4'] },
  'audio/wav': { modality: 'audio', sniffed: ['wav'] },
  'audio/x-wav': { modality: 'audio', sniffed: ['wav'] },
  'audio/wave': { modality: 'audio', sniffed: ['wav'] },
  'audio/webm': { modality: 'audio', sniffed: ['webm'] },
  'audio/ogg': { modality: 'audio', sniffed: ['ogg', 'opus', 'oga', 'spx'] },
  'audio/flac': { modality: 'audio', sniffed: ['flac'] },
}));

export const ACCEPTED_MEDIA_TYPES: readonly string[] = [...ACCEPTED.keys()];

/** Lower-cases a MIME type and drops parameters (`audio/ogg; codecs=opus` → `audio/ogg`). */
export function normaliseMime(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

export type MediaVerdict = { ok: true; contentType: string } | { ok: false; field: string; message: string };

/**
 * Checks that the declared modality, the declared MIME type and the bytes' magic number agree.
 * `sniffedExt` is what the bytes look like (`undefined` when unrecognised).
 */
export function judgeMedia(modality: MediaModality, contentType: string, sniffedExt: string | undefined): MediaVerdict {
  const mime = normaliseMime(contentType);
  // A Map: a caller's `constructor` is not a type, where an object would find Object's own member.
  const rule = ACCEPTED.get(mime);
  if (!rule) {
    return { ok: false, field: 'content_type', message: `content_type must be one of ${ACCEPTED_MEDIA_TYPES.join(', ')}, got ${JSON.stringify(contentType.slice(0, 100))}` };
  }
  if (rule.modality !== modality) {
    return { ok: false, field: 'modality', message: `modality ${modality} does not match content_type ${mime} (a ${rule.modality} type)` };
  }
  if (sniffedExt === undefined) {
    return { ok: false, field: 'data_base64', message: `data_base64 bytes are not a recognised ${modality} format (expected ${mime})` };
  }
  if (!rule.sniffed.includes(sniffedExt)) {
    return { ok: false, field: 'data_base64', message: `data_base64 bytes look like ${sniffedExt}, which does not match content_type ${mime}` };
  }
  return { ok: true, contentType: mime };
}

/** Standard base64 only (RFC 4648 §4, padding required); anything else is refused before decoding. */
export function isStandardBase64(text: string): boolean {
  return text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text);
}

/** Decoded size of a standard base64 string, computed without decoding it. */
export function decodedBase64Length(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

/** The provider route kind a modality needs: images are captioned, audio is transcribed. */
export function routeKind(modality: MediaModality): 'caption' | 'transcribe' {
  return modality === 'image' ? 'caption' : 'transcribe';
}

export type RouteChoice<R> = { ok: true; route: R } | { ok: false; reason: string };

/**
 * The provider route for media without caller text: the first route of the right kind; for a
 * `phi_strict` tenant only a route marked PHI-safe, never a fallback to an ordinary one.
 */
export function chooseMediaRoute<R extends { kind: 'caption' | 'transcribe'; phiSafe: boolean }>(
  routes: readonly R[],
  modality: MediaModality,
  phiStrict: boolean,
): RouteChoice<R> {
  const kind = routeKind(modality);
  const candidates = routes.filter((r) => r.kind === kind);
  const what = kind === 'caption' ? 'image captioning' : 'audio transcription';
  const fix = kind === 'caption' ? 'send caption' : 'send transcript';
  if (candidates.length === 0) return { ok: false, reason: `no ${what} provider is configured; ${fix} with the media` };
  if (!phiStrict) return { ok: true, route: candidates[0]! };
  const safe = candidates.find((r) => r.phiSafe);
  return safe
    ? { ok: true, route: safe }
    : { ok: false, reason: `this tenant is PHI-strict and no PHI-safe ${what} provider is configured; ${fix} with the media` };
}
