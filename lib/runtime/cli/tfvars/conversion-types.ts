/** What converting an old tfvars file yields, and its options. */
export type FieldPath = readonly (string | number)[];

/** A comment for the written YAML: above the key (`before`) or after a scalar value (`inline`). */
export interface FieldComment {
  readonly path: FieldPath;
  readonly text: string;
  readonly inline?: boolean;
}

export interface KeyOutcome {
  readonly key: string;
  /** `carried`: the setting is in the new file with the same meaning; `reported`: see notes. */
  readonly status: 'carried' | 'reported';
  /** Why it was not (fully) carried over; empty when carried. */
  readonly notes: readonly string[];
  /** Fields of the new file the setting went to (dotted paths). */
  readonly fields: readonly string[];
  /** Carried without writing a field: the value means what the new default does. */
  readonly sameAsDefault?: string;
}

export interface TfvarsConversion {
  /** The environment file content (camelCase keys, only what the old file set plus what is required). */
  readonly environment: Record<string, unknown>;
  readonly comments: readonly FieldComment[];
  /** One per key of the input, in input order. */
  readonly outcomes: readonly KeyOutcome[];
  readonly clusterName: string;
}

export interface ConvertOptions {
  /** clouds.yaml entry; replaces `cloud_provider`. */
  readonly cloud?: string;
  /** Directories relative file names of the old file (containerd_registry_files) are looked up in, in order. */
  readonly fileBases: readonly string[];
  /** Name of the source file, for messages. */
  readonly sourceName: string;
}
