export { RESPONSE_BODY_LIMIT } from '../../../../domain/webhooks/delivery.ts';
export { TEST_EVENT_TYPE as TEST_EVENT_TYPE_DEFAULT } from '../../../../domain/webhooks/catalog.ts';
