// JSON-RPC 2.0's error codes, as MCP and A2A answer them (https://www.jsonrpc.org/specification#error_object).
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
