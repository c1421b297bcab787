import { proxyActivities } from '@temporalio/workflow';
import type { CaptionMediaActivities, CaptionMediaInput, CaptionMediaResult } from '../src/jobs/contract.js';
import { activityOptions } from './policy.js';

/**
 * Captions an image or transcribes audio through the operator's provider and indexes the text. The
 * activity reads the bytes and writes the text itself, so the history holds ids only; provider failures
 * are retried by the policy, then fail the workflow (the route answers 502 and drops the staged media).
 */
export async function captionMedia(input: CaptionMediaInput): Promise<CaptionMediaResult> {
  const { deriveMediaText } = proxyActivities<CaptionMediaActivities>(activityOptions(input.activity));
  await deriveMediaText({ owner: input.owner, doc_id: input.doc_id, route: input.route });
  return { doc_id: input.doc_id };
}
