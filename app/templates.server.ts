// Server code for /leadTemplate: templates and links.
export {
  createTemplate,
  deleteTemplate,
  listTemplates,
  parseTemplateFields,
  toggleTemplateActive,
  updateTemplate,
} from "#server/core/templates/templates";
export { createLink, deleteLink, listLinks, toggleLinkActive, updateLink } from "#server/core/links/links";
export { baseColumnNames } from "#server/core/leads/card-start";
