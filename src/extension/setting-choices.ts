/**
 * The choices of an enum setting as a quick pick shows them: each value with its description, both
 * read from the extension's package.json (`enum` + `enumDescriptions`), so the Settings editor and
 * every quick pick say the same thing. No `vscode` import: unit-tested with the real package.json.
 */

export interface SettingChoice<T extends string = string> {
  label: T;
  description?: string;
  /** The value the settings hold now (shown as "current"). */
  current: boolean;
}

interface EnumProperty {
  enum?: string[];
  enumDescriptions?: string[];
}

/** `xrepotest.provider` -> its values and descriptions, the current value first (when given). */
export function settingChoices<T extends string>(packageJson: unknown, key: string, values: readonly T[], current?: string): SettingChoice<T>[] {
  const properties = (packageJson as { contributes?: { configuration?: { properties?: Record<string, EnumProperty> } } })?.contributes?.configuration?.properties ?? {};
  const p = properties[key] ?? {};
  const describe = (v: T): string | undefined => {
    const i = p.enum?.indexOf(v) ?? -1;
    return i >= 0 ? p.enumDescriptions?.[i] : undefined;
  };
  const ordered = current !== undefined && values.includes(current as T) ? [current as T, ...values.filter((v) => v !== current)] : [...values];
  return ordered.map((v) => ({ label: v, description: describe(v), current: v === current }));
}

/** The quick pick item text: the description, with "(current setting)" on the value the settings hold. */
export function choiceDescription(c: SettingChoice): string | undefined {
  return c.current ? `${c.description ? `${c.description} ` : ''}(current setting)` : c.description;
}

/** What each stored API key is for, in the "Set an API key" pick: the providers' descriptions, and the embedding server's. */
export function apiKeyChoices(packageJson: unknown, keys: readonly string[], currentProvider?: string): { label: string; description?: string }[] {
  const providers = settingChoices(packageJson, 'xrepotest.provider', keys);
  return providers.map((c) => ({
    label: c.label,
    description:
      c.label === 'embedding'
        ? 'The embedding server of the Dense context mode (setting xrepotest.embedding.baseUrl)'
        : `${c.description ?? ''}${c.label === currentProvider ? ' (the provider the settings use)' : ''}`.trim() || undefined,
  }));
}
