/** The parts of a (hostile) composer.json the autoloader and the classmap scan read; below both, so neither imports the other. */
export interface ComposerAutoload {
  'psr-4'?: Record<string, string | string[]>;
  'psr-0'?: Record<string, string | string[]>;
  classmap?: string[];
  files?: string[];
}

export interface ComposerJson {
  autoload?: ComposerAutoload;
  'autoload-dev'?: ComposerAutoload;
}
