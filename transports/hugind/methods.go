package hugind

// methods is every method the bridge answers.
var methods = map[string]handler{
	"agent.list":      agentList,
	"agent.install":   agentInstall,
	"agent.remove":    agentRemove,
	"agent.run":       agentRun,
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
