import os
import signal
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.environ.get('OPCHECK4J_REPRO_CHILD') == '1'
LIBRARY = sys.argv[1] if len(sys.argv) > 1 else %LIBRARY%
REPRODUCED, NOT_REPRODUCED, CANNOT = 1, 0, 3


def done(code, line):
    print(line)
    sys.exit(code)


def first_line(e):
    text = str(e).strip().splitlines()
    return type(e).__name__ + ': ' + (text[0] if text else '')


def unexpected(kind, e, tb):
    # anything the script did not expect (the library does not load, the op is not in it, ...) is no
    # finding: it exits CANNOT, never 1
    import traceback
    traceback.print_exception(kind, e, tb)
    print('cannot reproduce: the script failed: ' + first_line(e), flush=True)
    os._exit(CANNOT)  # an exception hook cannot set the exit code with sys.exit


if not CHILD:
    sys.excepthook = unexpected


torch.ops.load_library(LIBRARY)
# OPCHECK4J_REPRO_OP=ns::name[.overload] runs the same observation on another op of the library (a fixed twin)
CHECKED = %OP_NAME%
OP_NAME = os.environ.get('OPCHECK4J_REPRO_OP') or CHECKED
NAMESPACE, _, QUALIFIED = OP_NAME.partition('::')
# a check about a name no library defined resolves no op
OP = None if %NO_OP% else getattr(getattr(getattr(torch.ops, NAMESPACE), QUALIFIED.partition('.')[0]),
                                  QUALIFIED.partition('.')[2] or 'default')
DEVICE = %DEVICE%


def rebuilt(t, device, dtype, sizes, strides, offset, requires_grad):
    """A saved tensor as the example had it; on meta, the same dtype, sizes, strides and offset without values."""
    if device == 'meta':
        span = 0 if 0 in sizes else offset + 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
        t = torch.empty(span, dtype=getattr(torch, dtype), device='meta').as_strided(sizes, strides, offset)
    seen = (str(t.dtype).replace('torch.', ''), list(t.shape), list(t.stride()), t.storage_offset())
    if seen != (dtype, sizes, strides, offset):
        done(CANNOT, 'cannot reproduce: the saved tensor is not the example: %s, expected %s'
             % (seen, (dtype, sizes, strides, offset)))
    t = t.detach()
    return t.requires_grad_() if requires_grad else t


def load(device, name, *metas):
    # libtorch's pickle writer saves a Tensor[] as a call of torch.jit._pickle.build_tensorlist, which
    # torch.load's weights-only unpickler (its default since 2.6) allows only when told
    import torch.jit._pickle
    with torch.serialization.safe_globals([torch.jit._pickle.build_tensorlist]):
        value = torch.load(os.path.join(HERE, name))
    if isinstance(value, torch.Tensor):
        return rebuilt(value, device, *metas[0])
    left = iter(metas)
    return [rebuilt(v, device, *next(left)) if isinstance(v, torch.Tensor) else v for v in value]


def tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors(v)]
    return []


def same(a, b):
    """Bitwise the same values (NaN equal to NaN), as opcheck4j compares a tensor before and after a call."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(((a == b) | (a.isnan() & b.isnan())).all())
    return bool((a == b).all())


def call(args, kwargs):
    return OP(*args, **kwargs)


def wider(value):
    """A floating tensor as a float64 copy (the other arguments of an op differentiated in float64)."""
    return value.detach().double() if isinstance(value, torch.Tensor) and value.is_floating_point() else value


def reference(args, kwargs):
    """The spec's reference (an expression, or a function named reference) on the op's arguments."""
    scope = dict(zip([a.name for a in OP._schema.arguments], args))
    scope.update(kwargs)
    scope['torch'] = torch
    if 'def reference' in REFERENCE:
        exec(REFERENCE, scope)
        return scope['reference'](*args, **kwargs)
    return eval(REFERENCE, scope)


def differentiated():
    """The example's inputs that require grad (else its floating ones) as float64 leaves, as opcheck4j checks a
    lower-precision example and gradcheck expects (in float32 its finite differences are noise), and the op as a
    function of them; exits CANNOT when there is none."""
    args, kwargs = example()
    chosen = [i for i, v in enumerate(args) if isinstance(v, torch.Tensor) and v.requires_grad] or \
             [i for i, v in enumerate(args) if isinstance(v, torch.Tensor) and v.is_floating_point()]
    if not chosen:
        done(CANNOT, 'cannot reproduce: the example has no floating tensor input to differentiate')

    def f(*xs):
        return call([xs[chosen.index(i)] if i in chosen else wider(v) for i, v in enumerate(args)], kwargs)
    return tuple(args[i].detach().double().requires_grad_() for i in chosen), f


def mapped(value, fn):
    """value with fn applied to each tensor in it (lists too)."""
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, list):
        return [mapped(v, fn) for v in value]
    return value


def verdict(test, pytorch, hand):
    """Exit 1 when PyTorch's test (pytorch: its first line) or the observation by hand (hand) saw the finding."""
    if pytorch and hand:
        done(REPRODUCED, "reproduced: PyTorch's %s saw it (%s); by hand too: %s" % (test, pytorch, hand))
    if pytorch:
        done(REPRODUCED, "reproduced: PyTorch's %s saw it: %s" % (test, pytorch))
    if hand:
        done(REPRODUCED, 'reproduced by hand: %s%s' % (hand, " (PyTorch's %s did not see it: a blind spot)" % test
                                                       if test else ''))
    done(NOT_REPRODUCED, 'not reproduced: %sthe observation by hand saw nothing'
         % ("PyTorch's %s passed and " % test if test else ''))


def opcheck(util, args, kwargs):
    """PyTorch's torch.library.opcheck with one test util: the first line of what it raised, or None."""
    try:
        torch.library.opcheck(OP, args, kwargs, test_utils=(util,))
        return None
    except Exception as e:
        return first_line(e)


def tagged(tag):
    """Whether the op carries tag: registered (OP.tags, read from the library loaded) or declared by the checked
    op's spec entry (TAGS: a registration made for the stable ABI of 2.10 or 2.11 cannot carry tags)."""
    registered = [str(t).split('.')[-1] for t in getattr(OP, 'tags', ())]
    return tag in registered or (OP_NAME == CHECKED and tag in TAGS)
