/** A location in a JSON value: object keys and array indices from the root, e.g. `["edits", 0, "new_string"]`. */
export type JsonPath = ReadonlyArray<string | number>;
