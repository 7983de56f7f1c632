/* replay.c — run a fuzz harness without libFuzzer: each argument is a file
 * (or a directory of files) fed once to LLVMFuzzerTestOneInput: to reproduce
 * what a fuzzer found without libFuzzer (`build/replay/replay_mock crash-...`).
 * `make test` builds every harness this way, so a harness keeps compiling with
 * the code it drives. A property violation aborts. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "gauntlet/util.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0)
        return 0;
    if (S_ISDIR(info.st_mode)) {
        DIR *dir = opendir(path);
        struct dirent *entry;
        int count = 0;
        while (dir != NULL && (entry = readdir(dir)) != NULL) {
            if (entry->d_name[0] == '.')
                continue;
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
            count += replay(child);
        }
        if (dir != NULL)
            closedir(dir);
        return count;
    }
    char err[256];
    size_t len;
    char *data = gt_read_file(path, &len, err, sizeof err);
    if (data == NULL) {
        fprintf(stderr, "replay: %s\n", err);
        return 0;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    return 1;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    int count = 0;
    for (int i = 1; i < argc; i++)
        count += replay(argv[i]);
    printf("replay: %d inputs\n", count);
    return 0;
}
