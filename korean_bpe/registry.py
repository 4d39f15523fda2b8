"""Name -> stage class registries; every stage is rebuilt from a ``{"type": name, ...}`` dict.

>>> units = Registry("unit")
>>> @units.register("upper")
... class Upper:
...     def __init__(self, *, loud: bool = False): self.loud = loud
...     def to_config(self): return {"type": "upper", "loud": self.loud}
>>> units.build({"type": "upper", "loud": True}).loud
True
>>> units.build("upper", loud=True).to_config()
{'type': 'upper', 'loud': True}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

T = TypeVar("T")

__all__ = ["Registry"]


class Registry(Generic[T]):
    """A mapping from names to classes (or factories) of one kind of stage."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, Callable[..., T]] = {}

    def register(self, name: str) -> Callable[[Callable[..., T]], Callable[..., T]]:
        """Class decorator: ``@registry.register("okt")``."""

        def decorator(cls: Callable[..., T]) -> Callable[..., T]:
            if name in self._entries and self._entries[name] is not cls:
                raise ValueError(f"{self.kind} {name!r} is already registered to {self._entries[name]!r}")
            self._entries[name] = cls
            return cls

        return decorator

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def get_class(self, name: str) -> Callable[..., T]:
        try:
            return self._entries[name]
        except KeyError:
            raise ValueError(
                f"unknown {self.kind} {name!r}; choose one of {', '.join(map(repr, self.names()))}"
            ) from None

    def build(self, spec: str | Mapping[str, Any] | T, **options: Any) -> T:
        """Build a stage from a name plus keyword options, or from a config dict with a ``"type"``.

        An object that is already a stage (not a str or a mapping) is returned as is, so APIs can
        accept either.
        """
        if isinstance(spec, str):
            return self.get_class(spec)(**options)
        if isinstance(spec, Mapping):
            if "type" not in spec:
                raise ValueError(f"a {self.kind} config needs a 'type' key, got {dict(spec)!r}")
            config = dict(spec)
            name = config.pop("type")
            if options:
                config.update(options)
            cls = self.get_class(name)
            try:
                return cls(**config)
            except TypeError as exc:
                raise ValueError(f"bad {self.kind} config {dict(spec)!r}: {exc}") from exc
        if options:
            raise TypeError(f"options {sorted(options)} given with an already built {self.kind} {spec!r}")
        return spec
