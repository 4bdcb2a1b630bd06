export { renderHistory, renderToolCall } from "./render-history.js";
export { type ToolCallToken, XmlToolCallParser } from "./tool-call-parser.js";
export { renderToolPrompt } from "./tool-prompt.js";
export { toXmlRequest, withXmlToolProtocol, type XmlToolProtocolOptions } from "./with-xml-tool-protocol.js";
