"""The DLPack ABI, from the specification, for reading and making capsules
in the tests (tests/test_dlpack.py, tests/test_hostile.py) and the fuzz
campaign (tests/fuzz/dlpack.py, which lays the same structs out with raw
addresses: `raw`)."""

import ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensor(ctypes.Structure):
    pass


LEGACY_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", LEGACY_DELETER)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


VERSIONED_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", VERSIONED_DELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

READ_ONLY, IS_COPIED = 1, 2  # DLManagedTensorVersioned.flags
TYPE_CODES = {"b": 6, "i": 0, "u": 1, "f": 2, "c": 5}  # DLDataType.code of a NumPy dtype kind


def raw(struct):
    """struct laid out again with every pointer field (the shape, the
    strides, the deleter, nested structs' too) a plain address, so that any
    value, NULL or odd, can be written there; struct itself where it has
    none."""
    fields = []
    for field, kind in struct._fields_:
        if issubclass(kind, ctypes.Structure):
            kind = raw(kind)
        elif issubclass(kind, (ctypes._Pointer, ctypes._CFuncPtr)):
            kind = ctypes.c_void_p
        fields.append((field, kind))
    if fields == list(struct._fields_):
        return struct
    return type(struct.__name__, (ctypes.Structure,), {"_fields_": fields})


capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_get_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_get_name.restype = ctypes.c_char_p
_capsule_get_name.argtypes = [ctypes.py_object]
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]

# Capsule names must outlive the capsules made with them.
NAMES = {n: ctypes.create_string_buffer(n) for n in (b"dltensor", b"dltensor_versioned", b"something_else")}


def capsule_name(cap):
    return _capsule_get_name(cap).decode()


def versioned_of(cap):
    """The DLManagedTensorVersioned behind a fresh versioned capsule."""
    ptr = capsule_pointer(cap, b"dltensor_versioned")
    return DLManagedTensorVersioned.from_address(ptr)


def legacy_of(cap):
    ptr = capsule_pointer(cap, b"dltensor")
    return DLManagedTensor.from_address(ptr)
