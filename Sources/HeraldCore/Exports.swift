// HeraldCore is the I/O module around the pure HeraldModel; importing one gives both.
@_exported import HeraldModel
