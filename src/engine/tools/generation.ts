import { generationOptions, GenerationSettingsError, type GenerationOptions, type GenerationSettings } from '../generate/options';
import { ToolRefusal } from './errors';

/**
 * Generation as the user configured it (provider, model, mode, keys). What the settings lack is the
 * user's to change, not the agent's: a refusal whose message names the flag or setting.
 */
export function configuredGeneration(settings: GenerationSettings): GenerationOptions {
  try {
    return generationOptions(settings);
  } catch (e) {
    if (e instanceof GenerationSettingsError) throw new ToolRefusal(`tests cannot be generated with this configuration: ${e.message}`);
    throw e;
  }
}
