"""A cheaper ``__init__`` for the frozen attrs classes every governed call makes (design.md §9).

attrs makes a frozen class immutable by giving it a ``__setattr__`` that raises, so its
``__init__`` stores each field through ``object.__setattr__``: a call through a method wrapper,
with an argument tuple made and freed, for every field, 600 to 800 machine instructions where
a plain slot store takes 30 (measured with callgrind). A governed call builds about sixty fields
of frozen values (its invocation, execution, context, output, result and three events), so the
stores alone were a seventh of its cost.

:func:`fast_init` gives such a class an ``__init__`` that makes the instance a *draft* while it
is filled in (a subclass with the same slots and the generic ``__setattr__``, which the
interpreter specialises into plain slot stores), then gives it back its class by ``__class__``
assignment, which Python allows between classes of one layout. The instance is frozen from
then on exactly as before; nothing else sees it as a draft. The generated ``__init__`` keeps
attrs' signature, defaults, factories and converters; a class using anything else attrs offers
(validators, ``init=False`` fields, ``__attrs_post_init__``, factories that take self...) is
refused when decorated, and an instance of a subclass the decorator did not see is made by
attrs' own ``__init__``. The checks run when decorated; the draft class and the compiled
``__init__`` are made by the first instance (a run makes a dozen of the thirty event classes).
``tests/test_frozen.py`` holds every decorated class to attrs' own.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import attrs

T = TypeVar("T")

_set = object.__setattr__
_ATTRS_INIT = "__attrs_own_init__"  # where the replaced attrs __init__ is kept


def _build(cls: type, source: str, namespace: dict[str, Any]) -> Any:
    """Make the draft class of `cls` and compile `source`, its __init__; install and return it."""
    # The draft class and the compiled __init__, made when the first instance is: a
    # process that never makes one (most event classes in a run) pays only the checks.
    draft = type(
        f"_{cls.__name__}Draft",
        (cls,),
        {
            "__slots__": (),
            "__module__": cls.__module__,
            # Both: they share one type slot, and only the generic pair lets stores specialise.
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
        },
    )
    namespace["_Draft"] = draft
    exec(compile(source, f"<fast_init {cls.__qualname__}>", "exec"), namespace)  # our source
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    own = namespace["_own"]
    init.__doc__ = own.__doc__
    init.__annotations__ = dict(own.__annotations__)
    setattr(cls, "__init__", init)  # noqa: B010  # not `cls.__init__ =`: mypy forbids that
    return init


def fast_init(cls: type[T]) -> type[T]:
    """Give frozen, slotted attrs class `cls` the draft-based ``__init__`` (module docstring)."""
    if not attrs.has(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__qualname__}: fast_init needs a slotted attrs class")
    if getattr(cls, "__attrs_post_init__", None) or getattr(cls, "__attrs_pre_init__", None):
        raise TypeError(f"{cls.__qualname__}: fast_init does not run attrs' init hooks")
    namespace: dict[str, Any] = {
        "_set": _set,
        "_Cls": cls,
        "_MISSING": attrs.NOTHING,  # attrs' own marker: its __init__ takes it too
        "_own": cls.__init__,
    }
    positional: list[str] = []
    keyword: list[str] = []
    stores: list[str] = []
    names: list[str] = []
    for index, field in enumerate(attrs.fields(cls)):
        if (
            not field.init
            or field.validator is not None
            or field.on_setattr
            not in (
                None,
                attrs.setters.NO_OP,
            )
        ):
            raise TypeError(f"{cls.__qualname__}.{field.name}: fast_init cannot make this field")
        arg = field.alias or field.name
        names.append(arg)
        default = field.default
        if default is attrs.NOTHING:
            param = arg
        elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]  # a class; stubs say a function
            if default.takes_self:
                raise TypeError(f"{cls.__qualname__}.{field.name}: a factory that takes self")
            namespace[f"_f{index}"] = default.factory
            param = f"{arg}=_MISSING"
            stores.append(f"if {arg} is _MISSING:")
            stores.append(f"    {arg} = _f{index}()")
        else:
            namespace[f"_d{index}"] = default
            param = f"{arg}=_d{index}"
        (keyword if field.kw_only else positional).append(param)
        value = arg
        if field.converter is not None:
            if not callable(field.converter) or isinstance(field.converter, attrs.Converter):
                raise TypeError(f"{cls.__qualname__}.{field.name}: a converter that takes self")
            namespace[f"_c{index}"] = field.converter
            value = f"_c{index}({arg})"
        stores.append(f"self.{field.name} = {value}")
    params = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    body = [
        "if type(self) is not _Cls:  # a subclass keeps attrs' own __init__",
        f"    return _own(self, {', '.join(f'{n}={n}' for n in names)})",
        "_set(self, '__class__', _Draft)",
        *stores,
        "self.__class__ = _Cls",
    ]
    source = f"def __init__({params}):\n" + "\n".join("    " + line for line in body) + "\n"
    own = namespace["_own"]

    def first_init(self: Any, *args: Any, **kwargs: Any) -> None:
        init = cls.__dict__["__init__"]
        (_build(cls, source, namespace) if init is first_init else init)(self, *args, **kwargs)

    first_init.__qualname__ = f"{cls.__qualname__}.__init__"
    first_init.__doc__ = own.__doc__
    first_init.__wrapped__ = own  # type: ignore[attr-defined]  # inspect.signature: attrs' own
    setattr(cls, _ATTRS_INIT, own)
    setattr(cls, "__init__", first_init)  # noqa: B010  # not `cls.__init__ =`: mypy forbids that
    return cast("type[T]", cls)  # attrs.has() above narrowed it to an attrs class


__all__ = ["fast_init"]
