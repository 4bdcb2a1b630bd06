/** The names of the two tools a server with resources adds (kept apart from the tools, which load the MCP SDK). */
export const LIST_RESOURCES_TOOL = "ListMcpResources";
export const READ_RESOURCE_TOOL = "ReadMcpResource";
