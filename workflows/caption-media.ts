import { proxyActivities } from '@temporalio/workflow';
import { placementOf, type CaptionMediaActivities, type CaptionMediaInput, type CaptionMediaResult } from '../src/jobs/contract.js';
import { onHostingNode, onQueue } from './placement.js';
import { activityOptions } from './policy.js';

/**
 * Captions an image or transcribes audio through the operator's provider and indexes the text. The
 * activity runs on the node hosting the owner, reads the bytes and writes the text itself, so the history
 * holds ids only; provider failures are retried by the policy, then fail the workflow (the route answers
 * 502 and drops the staged media).
 */
export async function captionMedia(input: CaptionMediaInput): Promise<CaptionMediaResult> {
  await onHostingNode(placementOf(input.owner), (queues) => {
    const { deriveMediaText } = proxyActivities<CaptionMediaActivities>(onQueue(activityOptions(input.activity), queues?.activities ?? null));
    return deriveMediaText({ owner: input.owner, doc_id: input.doc_id, route: input.route });
  });
  return { doc_id: input.doc_id };
}
