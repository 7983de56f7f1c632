/* cmd_help.c — `gauntlet help`, `gauntlet version`, `gauntlet completion`,
 * and everything generated from the help texts.
 *
 * A command's --help text (its usage function in cmd_*.c) is the only
 * source of its documentation. `gauntlet help CMD` runs `CMD --help`; the
 * man pages (`help --man CMD`, installed by `make install`) and the shell
 * completion scripts are generated from the same text and the command table
 * (cli.c), so none of them can drift from what `--help` says.
 *
 * The help texts share one shape, which the generators read:
 *   usage: gauntlet CMD ...          synopsis (indented lines continue it)
 *   <blank>
 *   Prose.                           description
 *     -o, --option ARG   what it does    option (two spaces, '-' or an
 *                        continued       upper-case word, a gap of two
 *   heading:                             spaces), indented continuation
 *     name   text                    items of a heading section
 *   environment: ...                 ENVIRONMENT
 *   exit: 0 ..., 1 ..., 2 ...        EXIT STATUS ("Exit:" too)
 * Exit codes: 0 printed, 2 usage (unknown command or shell). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "gauntlet/runner/run.h"
#include "gauntlet/version.h"

#define HELP_MAX_LINES 256
#define HELP_MAX_OPTIONS 64

static void help_usage(FILE *out)
{
    fputs("usage: gauntlet help [COMMAND]\n"
          "       gauntlet help --man [COMMAND]\n"
          "       gauntlet help --commands\n"
          "\n"
          "Print the help of gauntlet or of one command (the same text as 'gauntlet COMMAND --help').\n"
          "  COMMAND      the command to describe (default: gauntlet itself)\n"
          "  --man        print the man page generated from that help text (roff, man(7))\n"
          "  --commands   print the command names, one per line\n"
          "exit: 0 printed, 2 unknown command or option\n",
          out);
}

static void version_usage(FILE *out)
{
    fputs("usage: gauntlet version\n"
          "       gauntlet --version\n"
          "\n"
          "Print 'gauntlet VERSION'.\n"
          "exit: 0 printed, 2 unknown option\n",
          out);
}

static void completion_usage(FILE *out)
{
    fputs("usage: gauntlet completion bash|zsh\n"
          "\n"
          "Print a completion script generated from the command table and the help texts.\n"
          "  bash   source it, or install it as /usr/share/bash-completion/completions/gauntlet\n"
          "  zsh    source it, or install it as _gauntlet in a directory of $fpath\n"
          "exit: 0 printed, 2 unknown shell\n",
          out);
}

/* ---- capturing a help text ---------------------------------------------- */

char *gt_cli_help_text(const gt_cli_command *command)
{
    char *text = NULL;
    size_t len = 0;
    if (command == NULL) {
        FILE *out = open_memstream(&text, &len);
        if (out == NULL)
            return NULL;
        gt_cli_usage(out);
        fclose(out);
        return text;
    }
    /* The command prints its help to standard output: point that at a
     * temporary file for the call. */
    FILE *capture = tmpfile();
    if (capture == NULL)
        return NULL;
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved < 0 || dup2(fileno(capture), STDOUT_FILENO) < 0) {
        if (saved >= 0)
            close(saved);
        fclose(capture);
        return NULL;
    }
    char *argv[] = {(char *)command->name, "--help", NULL};
    command->run(2, argv);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    long size = ftell(capture);
    text = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (text != NULL) {
        rewind(capture);
        size_t got = fread(text, 1, (size_t)size, capture);
        text[got] = '\0';
    }
    fclose(capture);
    return text;
}

/* Split `text` in place into lines (without their newline). */
static size_t split_lines(char *text, char **lines, size_t max)
{
    size_t count = 0;
    for (char *line = text; *line != '\0' && count < max;) {
        char *end = strchr(line, '\n');
        lines[count++] = line;
        if (end == NULL)
            break;
        *end = '\0';
        line = end + 1;
    }
    return count;
}

static size_t leading_spaces(const char *line)
{
    size_t n = 0;
    while (line[n] == ' ')
        n++;
    return n;
}

/* The synopsis is the "usage:" line and the indented lines after it. */
static size_t synopsis_end(char **lines, size_t count)
{
    size_t i = 0;
    if (count > 0 && strncmp(lines[0], "usage: ", 7) == 0)
        for (i = 1; i < count && lines[i][0] == ' '; i++)
            ;
    return i;
}

/* An option line: two spaces, then '-' or an upper-case word (PATH,
 * CASE-ID). In a heading section (`commands:`) every two-space line is an
 * item. Splits it into term and description (after a gap of two spaces, or
 * at the column where the next line's continuation starts). */
static bool split_item(char *line, const char *next, bool in_list, size_t *column, char **term, char **desc)
{
    if (leading_spaces(line) != 2)
        return false;
    char first = line[2];
    if (!in_list && first != '-' && !(isupper((unsigned char)first) && isupper((unsigned char)line[3])))
        return false;
    char *gap = strstr(line + 2, "  ");
    if (gap == NULL && in_list)
        gap = strchr(line + 2, ' ');
    /* no gap: the column where the next line continues it, else the column
     * of the item before ("  --report FORMAT:FILE write a report") */
    size_t at = next != NULL && leading_spaces(next) > 3 ? leading_spaces(next) : *column;
    if (gap == NULL && at > 3 && at < strlen(line) && line[at - 1] == ' ')
        gap = line + at - 1;
    *term = line + 2;
    if (gap == NULL) {
        *desc = line + strlen(line);
        return true;
    }
    *gap = '\0';
    char *rest = gap + 1;
    while (*rest == ' ')
        rest++;
    *desc = rest;
    *column = (size_t)(rest - line);
    return true;
}

/* ---- man pages ---------------------------------------------------------- */

/* Text for roff: backslashes as \e, '-' as \- (a minus, so options copy
 * as typed), a leading '.' or '\'' guarded. */
static void roff_text(FILE *out, const char *text)
{
    if (text[0] == '.' || text[0] == '\'')
        fputs("\\&", out);
    for (const char *p = text; *p; p++) {
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else if (*p == '"')
            fputs("\\(dq", out);
        else
            fputc(*p, out);
    }
}

static void roff_line(FILE *out, const char *text)
{
    roff_text(out, text);
    fputc('\n', out);
}

static void man_header(FILE *out, const char *page, const gt_cli_command *command)
{
    fputs(".TH \"", out);
    for (const char *p = page; *p; p++)
        fputc(toupper((unsigned char)*p), out);
    fputs("\" 1 \"\" \"gauntlet " GAUNTLET_VERSION "\" \"gauntlet manual\"\n.nh\n.ad l\n.SH NAME\n", out);
    roff_text(out, page);
    fputs(" \\- ", out);
    roff_line(out, command ? command->summary : "conformance suite for structured-output pipelines");
}

static void man_see_also(FILE *out, const gt_cli_command *command)
{
    fputs(".SH \"SEE ALSO\"\n", out);
    if (command != NULL) {
        fputs(".BR gauntlet (1)\n", out);
        return;
    }
    size_t count;
    const gt_cli_command *commands = gt_cli_commands(&count);
    for (size_t i = 0; i < count; i++)
        fprintf(out, ".BR gauntlet\\-%s (1)%s\n", commands[i].name, i + 1 < count ? "," : "");
}

int gt_cli_man_page(FILE *out, const gt_cli_command *command)
{
    char *text = gt_cli_help_text(command);
    if (text == NULL)
        return -1;
    char page[64];
    snprintf(page, sizeof page, command ? "gauntlet-%s" : "gauntlet", command ? command->name : "");
    man_header(out, page, command);

    char *lines[HELP_MAX_LINES];
    size_t count = split_lines(text, lines, HELP_MAX_LINES);
    size_t body = synopsis_end(lines, count);
    fputs(".SH SYNOPSIS\n.nf\n", out);
    for (size_t i = 0; i < body; i++) {
        const char *line = i == 0 ? lines[0] + 7 : lines[i] + leading_spaces(lines[i]);
        if (i > 0 && line[0] == '[')
            fputs("    ", out); /* an option list continued */
        roff_line(out, line);
    }
    fputs(".fi\n.SH DESCRIPTION\n", out);

    bool in_item = false, in_list = false, need_paragraph = false, in_exit = false, after_indented = false;
    size_t column = 0;
    for (size_t i = body; i < count; i++) {
        char *line = lines[i];
        char *term, *desc;
        if (line[leading_spaces(line)] == '\0') {
            need_paragraph = true;
            in_item = in_list = false;
        } else if (strncasecmp(line, "exit:", 5) == 0 || strncasecmp(line, "environment:", 12) == 0) {
            in_exit = strncasecmp(line, "exit:", 5) == 0;
            fputs(in_exit ? ".SH \"EXIT STATUS\"\n" : ".SH ENVIRONMENT\n", out);
            char *rest = strchr(line, ':') + 1;
            roff_line(out, rest + leading_spaces(rest));
            in_item = in_list = need_paragraph = false;
        } else if (!in_exit && split_item(line, i + 1 < count ? lines[i + 1] : NULL, in_list, &column, &term, &desc)) {
            fputs(".TP\n.B \"", out);
            roff_text(out, term);
            fputs("\"\n", out);
            if (desc[0] != '\0')
                roff_line(out, desc);
            in_item = true;
            need_paragraph = false;
        } else if (line[0] == ' ') {
            roff_line(out, line + leading_spaces(line));
        } else if (line[strlen(line) - 1] == ':' && strchr(line, ' ') == NULL) {
            fputs(".SH ", out); /* a heading ("commands:") and its list of items */
            for (const char *p = line; p[1] != '\0'; p++)
                fputc(toupper((unsigned char)*p), out);
            fputc('\n', out);
            in_list = true;
            in_item = need_paragraph = false;
        } else {
            if (in_item || need_paragraph || after_indented)
                fputs(".PP\n", out);
            roff_line(out, line);
            in_item = need_paragraph = false;
        }
        after_indented = line[0] == ' ';
    }
    man_see_also(out, command);
    free(text);
    fflush(out);
    return ferror(out) ? -1 : 0;
}

/* ---- completion --------------------------------------------------------- */

typedef struct help_option {
    char name[48];
    char desc[160];
} help_option;

static size_t add_option(help_option *options, size_t count, const char *name, size_t len, const char *desc)
{
    if (len == 0 || len >= sizeof options[0].name || count == HELP_MAX_OPTIONS)
        return count;
    for (size_t i = 0; i < count; i++)
        if (strlen(options[i].name) == len && strncmp(options[i].name, name, len) == 0)
            return count;
    memcpy(options[count].name, name, len);
    options[count].name[len] = '\0';
    snprintf(options[count].desc, sizeof options[count].desc, "%s", desc ? desc : "");
    return count + 1;
}

/* Every -x / --long-name that starts a word of `text` (a synopsis line or an
 * option's term), with `desc`. */
static size_t scan_options(help_option *options, size_t count, const char *text, const char *desc)
{
    for (const char *p = text; *p; p++) {
        bool starts = p == text || strchr(" [|/,", p[-1]) != NULL;
        if (!starts || p[0] != '-')
            continue;
        const char *name = p + (p[1] == '-' ? 2 : 1);
        if (!isalpha((unsigned char)*name))
            continue;
        const char *end = name;
        while (isalnum((unsigned char)*end) || *end == '-')
            end++;
        if (p[1] != '-' && end - name != 1)
            continue; /* -j, -q; never a word such as -static */
        count = add_option(options, count, p, (size_t)(end - p), desc);
        p = end - 1;
    }
    return count;
}

/* The options of `command`, from its help text: the items' terms first
 * (with their descriptions), then anything the synopsis adds. */
static size_t command_options(const gt_cli_command *command, help_option *options)
{
    char *text = gt_cli_help_text(command);
    if (text == NULL)
        return 0;
    char *lines[HELP_MAX_LINES];
    size_t count = split_lines(text, lines, HELP_MAX_LINES), found = 0, column = 0;
    size_t body = synopsis_end(lines, count);
    for (size_t i = body; i < count; i++) {
        char *term, *desc;
        if (split_item(lines[i], i + 1 < count ? lines[i + 1] : NULL, false, &column, &term, &desc))
            found = scan_options(options, found, term, desc);
    }
    for (size_t i = 0; i < body; i++)
        found = scan_options(options, found, lines[i], NULL);
    found = add_option(options, found, "--help", 6, "print this command's help");
    free(text);
    return found;
}

const char *gt_cli_suggest_option(const gt_cli_command *command, const char *arg, char *out, size_t out_len)
{
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return NULL;
    char word[sizeof ((help_option *)0)->name];
    size_t len = strcspn(arg, "=");
    if (len >= sizeof word)
        return NULL;
    memcpy(word, arg, len);
    word[len] = '\0';
    help_option options[HELP_MAX_OPTIONS];
    size_t count = command_options(command, options);
    const char *names[HELP_MAX_OPTIONS];
    size_t long_count = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(options[i].name, "--", 2) == 0)
            names[long_count++] = options[i].name;
    const char *nearest = gt_cli_nearest(word, names, long_count);
    if (nearest == NULL || strcmp(nearest, word) == 0)
        return NULL;
    snprintf(out, out_len, "%s", nearest);
    return out;
}

/* A word for a shell's single-quoted string. */
static void single_quoted(FILE *out, const char *text, bool zsh_colon)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", out);
        else if (*p == ':' && zsh_colon)
            fputs("\\:", out);
        else
            fputc(*p, out);
    }
}

static void bash_completion(FILE *out, const gt_cli_command *commands, size_t count)
{
    fputs("# bash completion for gauntlet, generated by `gauntlet completion bash` from the command\n"
          "# table and the help texts; do not edit.\n"
          "_gauntlet() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words=\n"
          "    [ \"$prev\" = \"=\" ] && prev=${COMP_WORDS[COMP_CWORD-2]}\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        words=\"--help --version",
          out);
    for (size_t i = 0; i < count; i++)
        fprintf(out, " %s", commands[i].name);
    fputs("\"\n"
          "    else\n"
          "        case \"$prev\" in\n"
          "        --gate) words=\"",
          out);
    for (int gate = 0; gate < GT_GATE_COUNT; gate++)
        fprintf(out, "%s%s", gate ? " " : "", gt_gate_name((gt_gate)gate));
    fputs("\" ;;\n"
          "        --color) words=\"auto always never\" ;;\n"
          "        *)\n"
          "            case \"${COMP_WORDS[1]}\" in\n",
          out);
    for (size_t i = 0; i < count; i++) {
        fprintf(out, "            %s) words=\"", commands[i].name);
        if (strcmp(commands[i].name, "help") == 0)
            for (size_t j = 0; j < count; j++)
                fprintf(out, "%s ", commands[j].name);
        else if (strcmp(commands[i].name, "completion") == 0)
            fputs("bash zsh ", out);
        help_option options[HELP_MAX_OPTIONS];
        size_t found = command_options(&commands[i], options);
        for (size_t j = 0; j < found; j++)
            fprintf(out, "%s%s", j ? " " : "", options[j].name);
        fputs("\" ;;\n", out);
    }
    fputs("            esac\n"
          "            # a word that is not an option: files (complete -o default), except for\n"
          "            # the commands whose arguments are words\n"
          "            case \"${COMP_WORDS[1]}:$cur\" in help:* | completion:* | *:-*) ;; *) return 0 ;; esac ;;\n"
          "        esac\n"
          "    fi\n"
          "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
          "}\n"
          "complete -o default -F _gauntlet gauntlet\n",
          out);
}

static void zsh_commands(FILE *out, const gt_cli_command *commands, size_t count)
{
    fputs("    commands=(\n", out);
    for (size_t i = 0; i < count; i++) {
        fputs("        '", out);
        single_quoted(out, commands[i].name, true);
        fputc(':', out);
        single_quoted(out, commands[i].summary, false);
        fputs("'\n", out);
    }
    fputs("    )\n", out);
}

static void zsh_completion(FILE *out, const gt_cli_command *commands, size_t count)
{
    fputs("#compdef gauntlet\n"
          "# zsh completion for gauntlet, generated by `gauntlet completion zsh` from the command\n"
          "# table and the help texts; do not edit.\n"
          "_gauntlet() {\n"
          "    local -a commands options\n",
          out);
    zsh_commands(out, commands, count);
    fputs("    if (( CURRENT == 2 )); then\n"
          "        _describe -t commands 'gauntlet command' commands\n"
          "        return\n"
          "    fi\n"
          "    case $words[CURRENT-1] in\n"
          "        (--gate) compadd",
          out);
    for (int gate = 0; gate < GT_GATE_COUNT; gate++)
        fprintf(out, " %s", gt_gate_name((gt_gate)gate));
    fputs(
        "; return ;;\n"
        "        (--color) compadd auto always never; return ;;\n"
        "    esac\n"
        "    case $words[2] in\n"
        "        (help) if [[ $PREFIX != -* ]]; then _describe -t commands 'gauntlet command' commands; return; fi ;;\n"
        "        (completion) compadd bash zsh; return ;;\n"
        "    esac\n"
        "    case $words[2] in\n",
        out);
    for (size_t i = 0; i < count; i++) {
        help_option options[HELP_MAX_OPTIONS];
        size_t found = command_options(&commands[i], options);
        fprintf(out, "        (%s) options=(", commands[i].name);
        for (size_t j = 0; j < found; j++) {
            fputs(j ? " '" : "'", out);
            single_quoted(out, options[j].name, true);
            if (options[j].desc[0] != '\0') {
                fputc(':', out);
                single_quoted(out, options[j].desc, false);
            }
            fputc('\'', out);
        }
        fputs(") ;;\n", out);
    }
    fputs("    esac\n"
          "    if [[ $PREFIX == -* ]]; then\n"
          "        _describe -t options 'option' options\n"
          "    else\n"
          "        _files\n"
          "    fi\n"
          "}\n"
          "if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then\n"
          "    _gauntlet \"$@\"\n"
          "else\n"
          "    compdef _gauntlet gauntlet\n"
          "fi\n",
          out);
}

int gt_cli_completion(FILE *out, const char *shell)
{
    size_t count;
    const gt_cli_command *commands = gt_cli_commands(&count);
    if (strcmp(shell, "bash") == 0)
        bash_completion(out, commands, count);
    else if (strcmp(shell, "zsh") == 0)
        zsh_completion(out, commands, count);
    else
        return -1;
    fflush(out);
    return ferror(out) ? -1 : 0;
}

/* ---- the commands ------------------------------------------------------- */

static int help_error(const char *fmt, const char *detail)
{
    fputs("gauntlet help: ", stderr);
    fprintf(stderr, fmt, detail);
    fputs("\n(gauntlet help --commands lists the commands)\n", stderr);
    return 2;
}

int gt_cmd_help(int argc, char **argv)
{
    bool man = false, list = false;
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help_usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--man") == 0) {
            man = true;
        } else if (strcmp(argv[i], "--commands") == 0) {
            list = true;
        } else if (argv[i][0] == '-') {
            return help_error("unknown option '%s'", argv[i]);
        } else if (name != NULL) {
            return help_error("one command at a time (got '%s' too)", argv[i]);
        } else {
            name = argv[i];
        }
    }
    const gt_cli_command *command = name ? gt_cli_find(name) : NULL;
    if (name != NULL && command == NULL)
        return help_error("unknown command '%s'", name);
    if (list) {
        size_t count;
        const gt_cli_command *commands = gt_cli_commands(&count);
        for (size_t i = 0; i < count; i++)
            printf("%s\n", commands[i].name);
        return 0;
    }
    if (man)
        return gt_cli_man_page(stdout, command) == 0 ? 0 : 2;
    if (command == NULL) {
        gt_cli_usage(stdout);
        return 0;
    }
    char *help_argv[] = {(char *)command->name, "--help", NULL};
    return command->run(2, help_argv);
}

int gt_cmd_version(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            version_usage(stdout);
            return 0;
        }
        fprintf(stderr, "gauntlet version: unknown argument '%s'\n", argv[i]);
        return 2;
    }
    printf("gauntlet %s\n", GAUNTLET_VERSION);
    return 0;
}

int gt_cmd_completion(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        completion_usage(stdout);
        return 0;
    }
    if (argc != 2 || gt_cli_completion(stdout, argv[1]) != 0) {
        fprintf(stderr, "gauntlet completion: name one shell: bash or zsh\n");
        completion_usage(stderr);
        return 2;
    }
    return 0;
}
