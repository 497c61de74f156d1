export { Listing, PagingError, type ListOptions } from "./listing.ts";
export type { Checkpoint, Page, PageMeta, Strategy } from "./strategy.ts";
export { gitlabKeyset, gitlabListing, gitlabOffset, type GitLabListRequest } from "./gitlab.ts";
export { N8N_MAX_LIMIT, n8nCursor, type N8nListRequest } from "./n8n.ts";
export { KEYSET_SUPPORT, hasKeyset, keysetSupportFor, type KeysetSupport, type ListingOrder } from "./keyset-support.ts";
export { parseLinkHeader, linkWithRel, type LinkValue } from "./link-header.ts";
