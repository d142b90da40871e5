import { UsageError } from "../../shared/lib/errors.js";
import { COMMON_OPTIONS, type Command } from "../command.js";
import type { CommandEntry } from "../commandList.js";
import { EXIT } from "../exit.js";

const HELP = `Usage: certsched completion bash|zsh

Prints a shell completion script for certsched: commands, their flags, and files
after --file.

  bash:  eval "$(certsched completion bash)"   (in ~/.bashrc), or save it as
         /etc/bash_completion.d/certsched
  zsh:   eval "$(certsched completion zsh)"    (in ~/.zshrc, after compinit)

Options:
  -h, --help   Show this help.

Exit codes: 0 printed; 2 no shell or an unknown one.
`;

/** Every command's flags, as typed on a command line (--help included). */
async function flagsByCommand(commands: readonly CommandEntry[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const entry of commands) {
    const command = entry.name === "completion" ? undefined : await entry.load();
    const own = command ? { ...command.options, ...COMMON_OPTIONS } : {};
    const names = Object.keys(own).map((name) => `--${name}`);
    out.set(entry.name, [...names, "--help"]);
  }
  return out;
}

/** A word safe inside single quotes in bash and zsh. */
const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

function bash(commands: readonly CommandEntry[], flags: Map<string, string[]>): string {
  const cases = [...flags].map(([name, list]) => `    ${name}) words=${quoted(list.join(" "))} ;;`);
  return `# certsched completion for bash: eval "$(certsched completion bash)"
_certsched() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} words
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W ${quoted(`${commands.map((c) => c.name).join(" ")} --help --version`)} -- "$cur") )
    return
  fi
  case "$prev" in
    --file|-f) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
  esac
  case "\${COMP_WORDS[1]}" in
${cases.join("\n")}
    *) words="" ;;
  esac
  if [ "\${COMP_WORDS[1]}" = completion ]; then words="bash zsh"; fi
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
}
complete -o default -F _certsched certsched
`;
}

function zsh(commands: readonly CommandEntry[], flags: Map<string, string[]>): string {
  const described = commands.map((c) => quoted(`${c.name}:${c.summary}`)).join(" ");
  const cases = [...flags].map(([name, list]) => `    ${name}) flags=(${list.join(" ")}) ;;`);
  return `#compdef certsched
# certsched completion for zsh: eval "$(certsched completion zsh)" (after compinit)
_certsched() {
  local -a commands flags
  commands=(${described})
  if (( CURRENT == 2 )); then
    _describe 'certsched command' commands
    compadd -- --help --version
    return
  fi
  if [[ \${words[CURRENT-1]} == (--file|-f) ]]; then
    _files
    return
  fi
  case \${words[2]} in
${cases.join("\n")}
  esac
  if [[ \${words[2]} == completion ]]; then flags=(bash zsh); fi
  compadd -- $flags
}
compdef _certsched certsched
`;
}

/**
 * The completion command for `commands` (cli/registry.ts passes its entries: this module imports
 * no command, so the registry and it form no cycle).
 */
export const completionCommandFor = (commands: readonly CommandEntry[]): Command => ({
  name: "completion",
  help: HELP,
  options: {},
  maxPositionals: 1,
  run: async (args, io) => {
    const shell = args.positionals[0];
    if (shell !== "bash" && shell !== "zsh") {
      const given = shell === undefined ? "no shell given" : `unknown shell "${shell}"`;
      throw new UsageError(`${given}: certsched completion bash, or zsh`, "completion");
    }
    const flags = await flagsByCommand(commands);
    io.stdout.write(shell === "bash" ? bash(commands, flags) : zsh(commands, flags));
    return EXIT.ok;
  },
});
