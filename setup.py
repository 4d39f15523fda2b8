"""Optional compiled core: every ``korean_bpe/**/*.pyx`` is built with Cython + the machine's C/C++
compiler when both are there.  When the build is impossible (no compiler, no Cython), installation
still succeeds and the pure-Python implementations are used (slower, same results)."""

import glob
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):
    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure falls back to pure Python
            print(f"korean_bpe: compiled core not built ({exc}); using the pure-Python fallback", file=sys.stderr)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            print(f"korean_bpe: could not compile {ext.name} ({exc}); using the pure-Python fallback", file=sys.stderr)


def extensions():
    sources = sorted(glob.glob(os.path.join("korean_bpe", "**", "*.pyx"), recursive=True))
    # the C++ the .pyx files include (next to each; hangul.hpp, tasks.hpp, text_chars.hpp at the top)
    headers = sorted(glob.glob(os.path.join("korean_bpe", "**", "*.hpp"), recursive=True)
                     + glob.glob(os.path.join("korean_bpe", "**", "*.pxd"), recursive=True))
    if not sources or os.environ.get("KOREAN_BPE_NO_EXT"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("korean_bpe: Cython not available; using the pure-Python fallback", file=sys.stderr)
        return []
    exts = [
        Extension(
            src[:-4].replace(os.sep, "."),
            [src],
            include_dirs=[os.path.dirname(src), "korean_bpe"],
            depends=headers,
            language="c++",
            extra_compile_args=["-O3", "-std=c++17"],
        )
        for src in sources
    ]
    try:
        return cythonize(exts, language_level=3, quiet=True)
    except Exception as exc:  # a Cython error must not stop the install: fall back, say so
        print(f"korean_bpe: Cython could not translate the compiled core ({exc}); using the pure-Python fallback",
              file=sys.stderr)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
