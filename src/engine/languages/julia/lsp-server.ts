import { ServerMissingError, runTool, type ServerSpec } from '../../context/lsp/server-kit';

export function resolveJuliaServer(): ServerSpec {
  const pkg = `julia -e 'using Pkg; Pkg.add("LanguageServer")'`;
  if (!runTool('julia', ['--version']).ok) {
    throw new ServerMissingError('julia', 'LanguageServer.jl', `Julia from https://julialang.org/downloads, then ${pkg}`, 'julia is not installed on this machine');
  }
  if (!runTool('julia', ['--startup-file=no', '-e', 'using LanguageServer']).ok) {
    throw new ServerMissingError('julia', 'LanguageServer.jl', pkg, 'the Julia package LanguageServer is not installed');
  }
  return {
    language: 'julia',
    name: 'LanguageServer.jl',
    command: 'julia',
    args: ['--startup-file=no', '--history-file=no', '-e', 'using LanguageServer; runserver()'],
    languageId: 'julia',
  };
}
