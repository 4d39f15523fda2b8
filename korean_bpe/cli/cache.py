"""``korean-bpe cache list`` and ``korean-bpe cache clear``: the analyses and models the comparison
keeps on disk."""

from __future__ import annotations

import argparse
from typing import Any


def add_parsers(sub: Any) -> None:
    """Add ``cache`` (``list``, ``clear``) to the subcommands ``sub``."""
    p = sub.add_parser("cache", help="list or clear the analyzer caches and compare's trained models and scores",
                       description="The on-disk morpheme-analysis caches and the trained models of "
                                   "`korean-bpe compare` with their scores (models/ beside them; "
                                   "KOREAN_BPE_CACHE_DIR overrides the place).")
    csub = p.add_subparsers(dest="cache_command", metavar="ACTION")
    csub.required = True
    ls = csub.add_parser("list", help="list the caches")
    ls.set_defaults(func=cmd_cache_list)
    clear = csub.add_parser("clear", help="delete one cache, or all")
    clear.add_argument("name", nargs="?", default=None,
                       help="okt, kiwi, mecab, or models (compare's trained models and their scores); "
                            "default: every cache")
    clear.set_defaults(func=cmd_cache_clear)


def cmd_cache_list(args: argparse.Namespace) -> int:
    from ..compare.model_cache import ModelCache
    from ..pre_tokenizers.cache import cache_dir, list_caches, moved_aside

    infos = list_caches()
    aside = moved_aside()
    print(f"cache directory: {cache_dir()}")
    if not infos and not aside:
        print("(no caches)")
    for info in infos:
        entries = info.problem.split(":")[0] if info.entries < 0 else f"{info.entries} entries"
        moves = "an analysis that reads the damaged entry moves it aside and starts anew; or " \
            if info.problem.startswith("corrupt") else ""
        fix = f"  ({info.problem}; {moves}remove it with: korean-bpe cache clear {info.name})" if info.problem else ""
        print(f"{info.name:<12} {entries:>18} {info.bytes / 1e6:10.1f} MB  {info.path}{fix}")
    for path in aside:
        print(f"{path.name.split('.')[0]:<12} {'moved aside':>18} {path.stat().st_size / 1e6:10.1f} MB  {path}  (found "
              f"corrupt and replaced by a new cache; kept for inspection: korean-bpe cache clear removes it)")
    models = ModelCache()
    files = models.entries()
    if files:
        size = sum(f.stat().st_size for f in files)
        print(f"{'models':<12} {f'{len(files)} entries':>18} {size / 1e6:10.1f} MB  {models.directory}"
              "  (compare's trained models and their scores)")
    return 0


def cmd_cache_clear(args: argparse.Namespace) -> int:
    from ..compare.model_cache import ModelCache
    from ..compare.strategies import GOLD_ANALYZERS
    from ..pre_tokenizers.cache import clear_cache, list_caches
    from .common import UserError

    known = [*sorted({*GOLD_ANALYZERS, *(info.name for info in list_caches())}), "models"]  # the analyzers' and compare's
    if args.name is not None and args.name not in known:
        raise UserError(f"no cache is named {args.name!r}: give one of {', '.join(known)} (korean-bpe "
                        "cache list shows what is kept), or no name for every cache")
    n = 0 if args.name == "models" else clear_cache(args.name)
    if args.name in (None, "models"):
        n += ModelCache().clear()
    print(f"removed {n} cached entries" + (f" from '{args.name}'" if args.name else ""))
    return 0
