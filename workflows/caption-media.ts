import { proxyActivities } from '@temporalio/workflow';
import type { CaptionMediaActivities } from '../activities/caption-media.js';
import { activityOptions } from './policy.js';
import type { ActivityPolicy, OwnerRef } from './types.js';

export interface CaptionMediaInput {
  owner: OwnerRef;
  /** The staged media record; its bytes stay encrypted in LMDB and never enter the history. */
  doc_id: string;
  /** Name of the provider route chosen by the HTTP layer (PHI policy already applied). */
  route: string;
  activity: ActivityPolicy;
}

/**
 * Captions an image or transcribes audio through the operator's provider and indexes the text. The
 * activity reads the bytes and writes the text itself, so the history holds ids only; provider failures
 * are retried by the policy, then fail the workflow (the route answers 502 and drops the staged media).
 */
export async function captionMedia(input: CaptionMediaInput): Promise<{ doc_id: string }> {
  const { deriveMediaText } = proxyActivities<CaptionMediaActivities>(activityOptions(input.activity));
  await deriveMediaText({ owner: input.owner, doc_id: input.doc_id, route: input.route });
  return { doc_id: input.doc_id };
}
