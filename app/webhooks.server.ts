// Server code for /integrations (route modules reach server/ only through *.server.ts files).
export {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  resendDelivery,
  rotateWebhookSecret,
  setWebhookEnabled,
  updateWebhook,
  webhookLog,
  webhooksSwitchedOff,
  type DeliveryView,
  type WebhookView,
} from "#server/core/webhooks/webhooks";
export { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from "#server/core/auth/api-keys";
