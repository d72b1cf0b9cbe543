/** Callbacks (API.md §5): durable outbox, dispatcher, signatures, URL guard, retry policy. */
export { backoffDelay, isDelivered, nextDelay, parseRetryAfter, retrySchedule, shouldRetry, DEFAULT_FACTOR, DEFAULT_JITTER } from './backoff.js';
export type { BackoffOptions, DeliveryOutcome } from './backoff.js';
export { CallbackDispatcher, type AttemptEvent, type DispatcherOptions } from './dispatcher.js';
export { buildMultipart } from './multipart.js';
export { CallbackOutbox, failureBody, type AttemptRecord, type CallbackKind, type DeliveryRow, type DeliveryState, type DeliveryStatus, type EnqueueInput } from './outbox.js';
export { postOnce } from './post-once.js';
export { computeSignature, signatureHeader, verifySignature, SIGNATURE_HEADER } from './signature.js';
export { checkCallbackUrl, guardedLookup, isForbiddenAddress, resolveCallbackUrl } from './url-guard.js';
