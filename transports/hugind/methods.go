package hugind

// methods is every method the bridge answers; the agent.* methods come
// with a later issue and until then answer "Unknown method".
var methods = map[string]handler{
	"config.list":     configList,
	"config.validate": configValidate,
	"config.info":     configInfo,
	"config.remove":   configRemove,
	"config.defaults": configDefaults,
	"config.init":     configInit,
	"model.list":      modelList,
	"model.show":      modelShow,
	"model.add":       modelAdd,
	"model.remove":    modelRemove,
	"server.list":     serverList,
	"server.start":    serverStart,
	"server.stop":     serverStop,
}
